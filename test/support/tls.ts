import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh self-signed certificate (and its key, PEM) for these DNS names, made by the system's `openssl`: a receiver
 * that a test trusts (or does not) as a real endpoint's certificate authority would be.
 */
export function selfSignedCertificate(names: readonly string[]): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tls-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
      '-keyout', key, '-out', cert,
    ], { stdio: 'pipe' });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
