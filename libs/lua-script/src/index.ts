export { LuaScript, assembleLua, type ScriptClient } from './lua-script';
