'use strict';
// The addon, loaded once for every module of the package.

function loadNative() {
  try {
    return require('../toolwire.node');
  } catch (e) {
    const err = new Error(
      'toolwire: the native addon is not built (run `npm run build --prefix bindings/node`): ' + e.message,
    );
    err.cause = e;
    throw err;
  }
}

module.exports = loadNative();
