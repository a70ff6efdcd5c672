/** One server-sent event as the text format gives it. */
export interface SseEvent {
  /** The `event:` field; 'message' when absent. */
  event: string;
  data: string;
  /** The last `id:` seen on the stream so far (ids carry over to later events). */
  id: string;
}

export interface SseParser {
  /** Feeds decoded text; a chunk may end anywhere, even inside a line or a CRLF. */
  push(text: string): void;
  /** The last event id received: what a reconnect sends as Last-Event-ID. */
  readonly lastEventId: string;
}

/**
 * A parser of the text/event-stream format (the HTML standard's rules):
 * lines end in CRLF, LF or CR; `:` starts a comment (the server's keep-alive);
 * `data:` lines join with '\n'; a blank line ends an event; an event without
 * data is dropped; an `id:` holding NUL is ignored; `retry:` is not used
 * (reconnects follow our own backoff).
 */
export function createSseParser(onEvent: (event: SseEvent) => void, initialLastEventId = ''): SseParser {
  let buffer = '';
  // A chunk that ended in '\r': a '\n' opening the next one belongs to that line end.
  let skipLeadingLf = false;
  let eventType = '';
  let data: string[] = [];
  let lastEventId = initialLastEventId;

  function dispatch() {
    if (data.length > 0) onEvent({ event: eventType || 'message', data: data.join('\n'), id: lastEventId });
    eventType = '';
    data = [];
  }

  function processLine(line: string) {
    if (line === '') {
      dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        eventType = value;
        break;
      case 'data':
        data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) lastEventId = value;
        break;
      default:
        // 'retry' and unknown fields are ignored.
        break;
    }
  }

  return {
    push(text: string) {
      if (skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
      skipLeadingLf = false;
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const char = buffer[i];
        if (char !== '\n' && char !== '\r') continue;
        processLine(buffer.slice(start, i));
        if (char === '\r') {
          if (i + 1 < buffer.length) {
            if (buffer[i + 1] === '\n') i++;
          } else {
            skipLeadingLf = true;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
