/** Name of the HttpOnly cookie that carries the signed-in user's API token (an operator's or a tenant user's). */
export const SESSION_COOKIE = 'tg_session';
