/**
 * A duplex channel carrying DevTools Protocol messages as JSON text. The Connection sets the two
 * callbacks; a transport calls `onclose` exactly once, whatever ended it.
 */
export interface Transport {
  send(message: string): void;
  close(): void;
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
}
