import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse';

function parse(chunks: string[], initialId = '') {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event), initialId);
  for (const chunk of chunks) parser.push(chunk);
  return { events, lastEventId: parser.lastEventId };
}

describe('createSseParser (text/event-stream)', () => {
  it('reads an event with its type, id and data', () => {
    const { events, lastEventId } = parse(['event: message\nid: m-1\ndata: {"id":"m-1"}\n\n']);
    expect(events).toEqual([{ event: 'message', id: 'm-1', data: '{"id":"m-1"}' }]);
    expect(lastEventId).toBe('m-1');
  });

  it('puts together chunks split anywhere, even mid-field and mid-line end', () => {
    const text = 'event: message\r\nid: m-7\r\ndata: {"content":"hello"}\r\n\r\nevent: read\r\ndata: {"userId":"u"}\r\n\r\n';
    // Every split point, including between the \r and the \n of a line end.
    for (let cut = 1; cut < text.length; cut++) {
      const { events } = parse([text.slice(0, cut), text.slice(cut)]);
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'message', id: 'm-7', data: '{"content":"hello"}' },
        { event: 'read', id: 'm-7', data: '{"userId":"u"}' },
      ]);
    }
    // One character at a time.
    expect(parse(Array.from(text)).events).toHaveLength(2);
  });

  it('accepts LF, CRLF and CR line ends', () => {
    expect(parse(['data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r']).events.map((event) => event.data)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('skips comment lines (the keep-alives) and dispatches nothing for them', () => {
    const { events } = parse([': keep-alive\n\n', ':\n', 'data: x\n', ': inside an event\n', '\n']);
    expect(events).toEqual([{ event: 'message', id: '', data: 'x' }]);
  });

  it('joins multi-line data with newlines and removes only one leading space', () => {
    const { events } = parse(['data: first\ndata:second\ndata:  indented\ndata\n\n']);
    expect(events[0].data).toBe('first\nsecond\n indented\n');
  });

  it("defaults the type to 'message' and resets it after each event", () => {
    const { events } = parse(['event: read\ndata: 1\n\ndata: 2\n\n']);
    expect(events.map((event) => event.event)).toEqual(['read', 'message']);
  });

  it('drops an event without data, but keeps its id', () => {
    const { events, lastEventId } = parse(['event: message\nid: m-2\n\n']);
    expect(events).toEqual([]);
    expect(lastEventId).toBe('m-2');
  });

  it('tracks the last event id across events: an event without id carries the previous one', () => {
    const { events, lastEventId } = parse(['id: m-1\ndata: a\n\n', 'event: read\ndata: b\n\n', 'id: m-2\ndata: c\n\n']);
    expect(events.map((event) => event.id)).toEqual(['m-1', 'm-1', 'm-2']);
    expect(lastEventId).toBe('m-2');
  });

  it('starts from the id it is given (a reconnect) and ignores an id holding NUL', () => {
    const { events, lastEventId } = parse(['data: a\n\n', 'id: bad\0id\ndata: b\n\n'], 'm-9');
    expect(events.map((event) => event.id)).toEqual(['m-9', 'm-9']);
    expect(lastEventId).toBe('m-9');
  });

  it('keeps an unfinished event until its blank line comes', () => {
    const events: SseEvent[] = [];
    const parser = createSseParser((event) => events.push(event));
    parser.push('data: part');
    parser.push('ial\n');
    expect(events).toEqual([]);
    parser.push('\n');
    expect(events).toEqual([{ event: 'message', id: '', data: 'partial' }]);
  });

  it('ignores retry and unknown fields', () => {
    expect(parse(['retry: 10\nfoo: bar\ndata: x\n\n']).events).toEqual([{ event: 'message', id: '', data: 'x' }]);
  });
});
