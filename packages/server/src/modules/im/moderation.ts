/**
 * Per-app sensitive words (contract 4.3). A message whose text contains one (case-insensitive
 * substring) is rejected before anything is stored: delivered to nobody, never called back.
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { InProcessSettingsVersions, type SettingsScope, type SettingsVersions } from '../coordination/settings-versions.js';
import { bodyText } from './bodies.js';
import type { ImApp, ImAppsRepository } from './ports.js';
import type { MessageBody } from './post-send.js';

const CACHE_MS = 5_000;

/** Pure: the first listed word found in the text of the bodies, if any. */
export function findSensitiveWord(words: readonly string[], bodies: readonly MessageBody[]): string | undefined {
  if (words.length === 0) return undefined;
  const text = bodies.map(bodyText).join('\n').toLowerCase();
  return words.find((w) => text.includes(w));
}

export class ModerationService {
  /**
   * Word lists by app id: read on every message, written rarely. A change answered on any
   * instance applies at once (coordination/settings-versions.ts); entries also expire after a
   * few seconds (a change made behind Parley's back).
   */
  private readonly cache = new Map<string, { words: string[]; at: number }>();
  private readonly versions: SettingsScope;

  constructor(
    private readonly repo: ImAppsRepository,
    private readonly clock: Clock,
    versions: SettingsVersions = new InProcessSettingsVersions(),
  ) {
    this.versions = versions.scope('im.words', (appId) => this.cache.delete(appId));
  }

  async words(app: ImApp): Promise<string[]> {
    const checking = this.versions.check(app.id);
    if (checking) await checking;
    const now = this.clock.now();
    const cached = this.cache.get(app.id);
    if (cached && now - cached.at < CACHE_MS && now >= cached.at) return cached.words;
    const words = await this.repo.getWords(app.id);
    this.cache.set(app.id, { words, at: now });
    return words;
  }

  async setWords(app: ImApp, words: string[]): Promise<string[]> {
    const clean = [...new Set(words.map((w) => w.trim().toLowerCase()).filter(Boolean))];
    await this.repo.setWords(app.id, clean, this.clock.now());
    await this.versions.changed(app.id);
    return clean;
  }

  /** Throws 403 forbidden_op when a body contains a sensitive word. */
  async assertAllowed(app: ImApp, bodies: readonly MessageBody[]): Promise<void> {
    if (findSensitiveWord(await this.words(app), bodies) !== undefined) {
      // `rule` lets a socket protocol tell this refusal from a membership one (msync/statuses.ts).
      throw new AppError('forbidden_op', { detail: 'the message contains a sensitive word and was not sent', rule: 'sensitive_word' });
    }
  }
}
