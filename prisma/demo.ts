// The demo's fixed credentials, shown in the README. The seed creates them only into an empty database.
export const DEMO_OPERATOR = { email: 'admin@tollgate.local', password: 'tollgate-demo' };
/** Created only by the demo seed. Never use it outside a local demo. */
export const DEMO_SERVICE_KEY = 'tg_test_DEMO_ONLY_service_key_not_for_production';
