import { randomBytes } from 'node:crypto';
import { streamName, type StreamName } from '../../ports/eventStore.js';

export const newPlanId = (): string => randomBytes(16).toString('base64url');
export const bundleStream = (planId: string): StreamName => streamName(`bundle-${planId}`);
