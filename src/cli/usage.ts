// The command line's own error: wrong words on the command line. It prints the usage and exits 2.

export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
