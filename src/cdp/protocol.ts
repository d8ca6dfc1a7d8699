// The DevTools Protocol's commands and events, as the devtools-protocol package types them: shared
// by the connection and its sessions without either importing the other.

import type { ProtocolMapping } from 'devtools-protocol/types/protocol-mapping.js';

export type Commands = ProtocolMapping.Commands;
export type CdpEvents = ProtocolMapping.Events;
