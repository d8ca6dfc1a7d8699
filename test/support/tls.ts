// A certificate nobody signed, made by the machine's openssl, for test servers that speak TLS.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

export interface SelfSigned {
  /** Paths of the PEM files, in `dir`. */
  readonly certPath: string;
  readonly keyPath: string;
  /** Their contents, for node:https. */
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Writes cert.pem and key.pem into `dir` for `commonName`, valid one day; `altName` is a subjectAltName ("IP:127.0.0.1"). */
export async function selfSigned(dir: string, commonName: string, altName?: string): Promise<SelfSigned> {
  const certPath = path.join(dir, 'cert.pem');
  const keyPath = path.join(dir, 'key.pem');
  const subject = ['-subj', `/CN=${commonName}`, ...(altName ? ['-addext', `subjectAltName=${altName}`] : [])];
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-keyout',
    keyPath,
    '-out',
    certPath,
    ...subject,
  ]);
  const [cert, key] = await Promise.all([readFile(certPath), readFile(keyPath)]);
  return { certPath, keyPath, cert, key };
}
