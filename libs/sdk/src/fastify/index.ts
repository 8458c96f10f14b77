export { tollgatePlugin, type TollgateFastifyOptions } from './plugin';
export type { Resolve, RouteLimit } from '../http/enforce';
