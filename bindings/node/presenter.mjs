// ESM entry of toolwire/presenter: the same module as the CommonJS one.
import presenter from './presenter.js';

export const {
  Presenter,
  createPresenter,
  definePresenter,
  extendPresenter,
  isPresenter,
  PresenterValidationError,
  ResponseBuilder,
  response,
  isResponseBuilder,
  ui,
  suggest,
  success,
  successStructured,
  toonSuccess,
  error,
  toolError,
  required,
  generateDescription,
  generateToonDescription,
  extractZodDescriptions,
  MVA_META_SYMBOL,
  META,
} = presenter;
// `t` needs zod: read on first use.
export const t = new Proxy({}, { get: (_, k) => presenter.t[k], has: (_, k) => k in presenter.t, ownKeys: () => Reflect.ownKeys(presenter.t), getOwnPropertyDescriptor: (_, k) => Object.getOwnPropertyDescriptor(presenter.t, k) });
export default presenter;
