/** Name of the HttpOnly cookie that carries the operator's API token. */
export const SESSION_COOKIE = 'tg_session';
