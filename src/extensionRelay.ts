// The package entry `tendril/extension-relay`: the extension's side of `tendril relay`, for an
// extension that lets Tendril processes elsewhere (and any CDP client) drive the tabs its user
// shares. Apart from `tendril/extension`, so that an extension without the relay does not carry it.
// No Node built-in, as for `tendril/extension`.
export { RelayBridge, type RelayBridgeOptions, type RelayStatus } from './relay/extensionSide.js';
export type { ChromeDebuggerApi, ChromeTabsApi } from './cdp/extensionTransport.js';
export * from './errors.js';
