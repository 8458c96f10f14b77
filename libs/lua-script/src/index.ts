export { type AckPipelineClient, type AcknowledgedReply, LuaScript, assembleLua, type ScriptClient } from './lua-script';
