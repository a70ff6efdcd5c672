// vtk.js reads and writes VTK's XML formats with xmlbuilder2, which extends
// Node's EventEmitter and breaks in a browser bundle. The viewer never reads
// VTK XML (only Cornerstone's surface meshes do), so the bundle gets this
// stand-in instead (web/vite.config.ts, resolve.alias).
export function create(): never {
  throw new Error('VTK XML is not supported in MediShare.');
}
