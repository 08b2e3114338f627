// The one Node global the usage file needs (no @types/node dependency).
declare const Buffer: { from(text: string): Uint8Array };
