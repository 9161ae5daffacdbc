import type { EventMetadata, EventStore } from '../ports/eventStore.js';
import { decideUpload, type UploadCommand } from '../domain/upload/decider.js';
import { isUploadEvent, type UploadEvent } from '../domain/upload/events.js';
import { evolveUpload, type UploadState } from '../domain/upload/state.js';
import { uploadStream } from '../domain/upload/ids.js';
import { newEventId } from '../domain/ids.js';
import { AggregateRepository, type CommandResult } from './aggregateRepository.js';

export type UploadCommandResult = CommandResult<UploadState, UploadEvent>;

/** Multi-part uploads by id; see AggregateRepository for caching, locking and retries. */
export class UploadRepository {
  private readonly repository: AggregateRepository<UploadState, UploadCommand, UploadEvent>;

  constructor(eventStore: EventStore) {
    this.repository = new AggregateRepository(eventStore, {
      initialState: undefined,
      evolve: evolveUpload,
      decide: decideUpload,
      isEvent: isUploadEvent,
      stream: uploadStream,
      // random: the decider makes repeats decide nothing, and a chunk may legitimately come back
      // with the same bytes after being replaced, which a derived id would refuse
      eventId: newEventId,
    });
  }

  read(uploadId: string): Promise<UploadState> {
    return this.repository.read(uploadId);
  }

  execute(command: UploadCommand, metadata: Omit<EventMetadata, 'schemaVersion'>): Promise<UploadCommandResult> {
    return this.repository.execute(command.data.uploadId, command, metadata);
  }
}
