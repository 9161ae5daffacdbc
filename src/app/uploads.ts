import type { EventStore } from '../ports/eventStore.js';
import { decideUpload, type UploadCommand } from '../domain/upload/decider.js';
import { isUploadEvent, type UploadEvent } from '../domain/upload/events.js';
import { evolveUpload, type UploadState } from '../domain/upload/state.js';
import { uploadStream } from '../domain/upload/ids.js';
import { AggregateRepository } from './aggregateRepository.js';

/** Multi-part uploads by id; see AggregateRepository for caching, locking and retries. */
export class UploadRepository extends AggregateRepository<UploadState, UploadCommand, UploadEvent> {
  constructor(eventStore: EventStore) {
    super(eventStore, {
      initialState: undefined,
      evolve: evolveUpload,
      decide: decideUpload,
      isEvent: isUploadEvent,
      keyOf: (command) => command.data.uploadId,
      stream: uploadStream,
    });
  }
}
