// Stands in for meshweld/inspect while the package has no such entry: it exports no traceWeld,
// so src/trace.js reports the trace as unavailable. (Replaced by the alias in vite.config.js as
// soon as package.json exports "./inspect".)
export const unavailable = 'meshweld/inspect is not part of this build of meshweld';
