import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as it came (headers and body, CRLF line ends). */
  raw: string;
}

/**
 * What the server answers to a recipient: accepted, refused with an SMTP reply (`550 no such user`, `451 try later`),
 * or `hold`: never answered (a server that hangs).
 */
export type RcptAnswer = 'accept' | 'hold' | { code: number; message: string };

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) for the e-mail channel's tests: a free port, no TLS, no
 * authentication; records every message, and answers each recipient with the next of the queued answers, or accepts.
 */
export async function startSmtpReceiver() {
  const received: ReceivedMail[] = [];
  const queued: RcptAnswer[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      const answer = queued.shift() ?? 'accept';
      if (answer === 'hold') return;
      if (answer === 'accept') return callback();
      callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({ from: from ? from.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Answers the next recipients with these, in order. */
    answer: (...answers: RcptAnswer[]) => queued.push(...answers),
    reset: () => {
      received.length = 0;
      queued.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A header of a received message, unfolded (`Subject`, `Message-ID`). */
export function headerOf(raw: string, name: string): string | undefined {
  const head = raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ');
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** A received message with its quoted-printable parts decoded (soft line breaks joined, `=XX` bytes read as UTF-8). */
export function decodedOf(raw: string): string {
  const joined = raw.replace(/=\r\n/g, '');
  return Buffer.from(joined.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1').toString('utf8');
}
