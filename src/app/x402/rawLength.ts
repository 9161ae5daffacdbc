/**
 * The reference's answer without content-length on the unsigned x402 route (turbo-upload-service
 * src/routes/x402RawDataPost.ts), in a module of its own: the HTTP layer needs it whether or not x402
 * is configured, and the rest of src/app/x402 loads the x402 package and viem (about 80 MiB), which
 * the service loads only when X402_NETWORKS configures x402 (src/wiring/commands.ts).
 */
export const RAW_LENGTH_REQUIRED = 'Missing Content Length. Content Length is required for raw data post.';
