export * from './errors.js';
export * from './signing.js';
export * from './date-keys.js';
export * from './accounts.js';
export * from './channel.js';
export * from './channel-validate.js';
export * from './callbacks.js';
export * from './im.js';
