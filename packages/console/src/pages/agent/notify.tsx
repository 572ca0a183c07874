/**
 * Alerts for new conversations in the workspace: a short sound, and a browser notification once
 * the agent has allowed them. Permission is asked only when the agent presses the button, never
 * on page load; the on/off switch is remembered in this browser (localStorage).
 */
import { useEffect, useRef, useState } from 'react';
import type { ChannelEvent } from '@parley/protocol';
import { useConsole } from '../../context.js';

const KEY = 'parley.console.alerts';

type Permission = NotificationPermission | 'unsupported';

function readEnabled(): boolean {
  try {
    return window.localStorage.getItem(KEY) !== 'off';
  } catch {
    return true;
  }
}

function writeEnabled(on: boolean): void {
  try {
    window.localStorage.setItem(KEY, on ? 'on' : 'off');
  } catch {
    // storage disabled: the switch lasts until the page is left
  }
}

const permissionNow = (): Permission => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);

/** Two short tones through Web Audio: no sound file to load. */
function chime(): void {
  // Before any click or key on the page the browser refuses to start audio (and says so in the console).
  if (navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  try {
    const audio = new AudioContext();
    const gain = audio.createGain();
    gain.gain.value = 0.08;
    gain.connect(audio.destination);
    [880, 1320].forEach((frequency, i) => {
      const tone = audio.createOscillator();
      tone.frequency.value = frequency;
      tone.connect(gain);
      tone.start(audio.currentTime + i * 0.16);
      tone.stop(audio.currentTime + i * 0.16 + 0.12);
    });
    window.setTimeout(() => void audio.close(), 600);
  } catch {
    // no audio output: the list still shows the conversation
  }
}

export interface Alerts {
  enabled: boolean;
  permission: Permission;
  setEnabled(on: boolean): void;
  askPermission(): void;
}

/** Sounds (and shows a browser notification, when allowed) for each new waiting conversation, or one assigned to the user. */
export function useNewConversationAlerts(last: ChannelEvent | undefined): Alerts {
  // `last`: the latest new_conversation event of the stream (events.ts `arrival`).
  const { session } = useConsole();
  const [enabled, setEnabledState] = useState(readEnabled);
  const [permission, setPermission] = useState<Permission>(permissionNow);
  const seen = useRef<ChannelEvent | undefined>(undefined);

  useEffect(() => {
    if (!last || last === seen.current || last.type !== 'new_conversation') return;
    seen.current = last;
    if (!enabled || (last.agentId !== null && last.agentId !== session.user.id)) return;
    chime();
    if (permissionNow() === 'granted') {
      new Notification('New conversation waiting', { body: 'A customer is waiting in the Parley workspace.', tag: `parley-conversation-${last.conversationId}` });
    }
  }, [last, enabled, session.user.id]);

  return {
    enabled,
    permission,
    setEnabled: (on) => {
      writeEnabled(on);
      setEnabledState(on);
    },
    askPermission: () => {
      if (typeof Notification === 'undefined') return;
      void Notification.requestPermission().then(setPermission);
    },
  };
}

/** The switch and, while the browser has not been asked yet, the button that asks. */
export function NotifyControls({ alerts }: { alerts: Alerts }) {
  return (
    <div className="notify-controls">
      <label className="check small-text">
        <input type="checkbox" checked={alerts.enabled} onChange={(e) => alerts.setEnabled(e.target.checked)} />
        Alert me about new conversations
      </label>
      {alerts.enabled && alerts.permission === 'default' && (
        <button type="button" className="small" onClick={alerts.askPermission}>
          Allow browser notifications
        </button>
      )}
      {alerts.enabled && alerts.permission === 'denied' && <span className="muted small-text">Browser notifications are blocked; a sound still plays.</span>}
      {alerts.enabled && alerts.permission === 'granted' && <span className="muted small-text">Sound and browser notifications on.</span>}
    </div>
  );
}
