import { describeFailure, type Loaded } from './session';

/**
 * One part of a page's reads, which may fail on its own: its section says why while the rest of the page (a
 * tenant's limits, which the operator may need to change right then) still works. The session was checked by the
 * page's first read (`loadWithSession`).
 */
export async function settled<T>(read: Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, data: await read };
  } catch (error) {
    return { ok: false, problem: describeFailure(error) };
  }
}
