import { CT_PRESETS } from './presets';

// The viewer's keyboard shortcuts: one map, read by the key handler and by
// the help dialog, so the two never disagree.

export type ViewerAction =
  | 'next'
  | 'previous'
  | 'first'
  | 'last'
  | 'tool-window'
  | 'tool-zoom'
  | 'tool-pan'
  | 'tool-scroll'
  | 'tool-length'
  | 'tool-angle'
  | 'zoom-in'
  | 'zoom-out'
  | 'invert'
  | 'rotate'
  | 'flip-horizontal'
  | 'flip-vertical'
  | 'reset'
  | 'cine'
  | 'fullscreen'
  | 'identifiers'
  | 'help'
  | `preset:${string}`;

export interface Shortcut {
  keys: string[];
  action: ViewerAction;
  label: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['ArrowDown', 'ArrowRight', 'PageDown'], action: 'next', label: 'Next image' },
  { keys: ['ArrowUp', 'ArrowLeft', 'PageUp'], action: 'previous', label: 'Previous image' },
  { keys: ['Home'], action: 'first', label: 'First image' },
  { keys: ['End'], action: 'last', label: 'Last image' },
  { keys: ['w'], action: 'tool-window', label: 'Window / level tool' },
  { keys: ['z'], action: 'tool-zoom', label: 'Zoom tool' },
  { keys: ['p'], action: 'tool-pan', label: 'Pan tool' },
  { keys: ['s'], action: 'tool-scroll', label: 'Scroll tool' },
  { keys: ['l'], action: 'tool-length', label: 'Length measurement' },
  { keys: ['a'], action: 'tool-angle', label: 'Angle measurement' },
  { keys: ['+', '='], action: 'zoom-in', label: 'Zoom in' },
  { keys: ['-'], action: 'zoom-out', label: 'Zoom out' },
  { keys: ['i'], action: 'invert', label: 'Invert' },
  { keys: ['r'], action: 'rotate', label: 'Rotate 90°' },
  { keys: ['h'], action: 'flip-horizontal', label: 'Flip horizontally' },
  { keys: ['v'], action: 'flip-vertical', label: 'Flip vertically' },
  { keys: ['0'], action: 'reset', label: 'Reset the view' },
  { keys: [' '], action: 'cine', label: 'Play or stop cine' },
  { keys: ['f'], action: 'fullscreen', label: 'Full screen' },
  { keys: ['n'], action: 'identifiers', label: 'Show or hide patient identifiers' },
  { keys: ['?'], action: 'help', label: 'Keyboard shortcuts' },
  {
    keys: CT_PRESETS.map((preset) => preset.key),
    action: 'preset:',
    label: `CT window presets (${CT_PRESETS.map((preset) => preset.label.toLowerCase()).join(', ')})`,
  },
];

// The presets name their own keys (presets.ts).
const PRESET_KEYS: Record<string, string> = Object.fromEntries(CT_PRESETS.map((preset) => [preset.key, preset.id]));

/** The first key of an action, as the help dialog writes it (for a button's title). */
export function shortcutOf(action: ViewerAction): string {
  const shortcut = SHORTCUTS.find((entry) => entry.action === action);
  return shortcut ? keyLabel(shortcut.keys[0]) : '';
}

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

/** The action of a key press, or null (modified keys belong to the browser). */
export function actionForKey(event: KeyLike): ViewerAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (PRESET_KEYS[key]) return `preset:${PRESET_KEYS[key]}`;
  for (const shortcut of SHORTCUTS) {
    if (shortcut.action !== 'preset:' && shortcut.keys.includes(key)) return shortcut.action;
  }
  return null;
}

/** How a key is written in the help dialog. */
export function keyLabel(key: string): string {
  const names: Record<string, string> = {
    ArrowDown: '↓',
    ArrowUp: '↑',
    ArrowLeft: '←',
    ArrowRight: '→',
    ' ': 'Space',
    Escape: 'Esc',
  };
  return names[key] ?? (key.length === 1 ? key.toUpperCase() : key);
}
