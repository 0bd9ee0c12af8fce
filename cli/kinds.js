// The file kinds the command reads and writes, and its error for a mistake in them: what it needs
// before it loads glTF-Transform, three.js and the module (the options' checks, --help).
import { extname } from 'node:path';

export const INPUTS = ['.stl', '.obj', '.ply', '.gltf', '.glb'];
export const OUTPUTS = ['.glb', '.gltf', '.stl', '.ply', '.obj'];

export class UserError extends Error {}

export function formatOf(path, kinds, role) {
  const ext = extname(path).toLowerCase();
  if (!kinds.includes(ext)) {
    const list = `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`;
    throw new UserError(`unknown ${role} format ${ext ? `'${ext}'` : '(no extension)'} of ${path}: expected ${list}`);
  }
  return ext;
}
