export { startChdbHttpServer, type ChdbHttpServer, type ChdbHttpServerOptions } from './server';
export { ChdbEngine, type QueryRequest, type EngineResult } from './engine';
