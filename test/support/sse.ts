/** One server-sent event as the EventSource format defines it (WHATWG HTML, "Server-sent events" § parsing). */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** the answer's body as text, for an answer that is no stream (an error) */
  text(): Promise<string>;
  /** the next message; undefined once the stream has ended */
  next(): Promise<SseMessage | undefined>;
  /** every message until the stream ends */
  rest(): Promise<SseMessage[]>;
  /** comment lines seen so far (heartbeats) */
  comments: string[];
  close(): Promise<void>;
}

/**
 * A real client read of a `text/event-stream` answer: fetch, then the body read chunk by chunk and cut
 * into messages at blank lines, fields split at the first colon with one leading space dropped, as
 * the EventSource parser does. `Last-Event-ID` is sent when given, as EventSource does on reconnect.
 */
export async function openSse(url: string, lastEventId?: string): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const comments: string[] = [];
  let buffer = '';
  let done = false;

  async function next(): Promise<SseMessage | undefined> {
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const message = parse(block);
        if (message) return message;
        continue;
      }
      if (done) return undefined;
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) done = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
    }
  }

  function parse(block: string): SseMessage | undefined {
    const message: SseMessage = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length === 0) return undefined;
    message.data = data.join('\n');
    return message;
  }

  return {
    status: res.status,
    headers: res.headers,
    text: async () => {
      let text = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
      return text;
    },
    next,
    async rest() {
      const all: SseMessage[] = [];
      for (let m = await next(); m; m = await next()) all.push(m);
      return all;
    },
    comments,
    async close() {
      controller.abort();
      await reader.cancel().catch(() => undefined);
    },
  };
}
