/**
 * Theme sounds through three's WebAudio (`AudioListener`, `Audio`): `die.collide` when the throw's
 * dice hit something (louder the harder), `die.value` when a die comes to rest on the sound's `value`,
 * `roll.loading` while a roll of ours is on its way. Silent until the first click or key press (the
 * browsers' autoplay rule: no AudioContext is made before), with a mute switch remembered per browser.
 */
import { Audio, AudioListener } from 'three';
import type { Theme } from '../../client';
import { themeAssets } from './themes';

const STORAGE = 'openDice.sound';

type SoundEntry = { on?: unknown; src?: unknown; value?: unknown };

export class DiceSounds {
  private listener: AudioListener | null = null;
  private readonly buffers = new Map<string, Promise<AudioBuffer | null>>();
  private loading: Audio[] = [];
  /** for tests: sounds started, by event */
  readonly played: Record<string, number> = { 'die.collide': 0, 'die.value': 0, 'roll.loading': 0 };

  constructor(private readonly allowed: boolean) {
    if (!allowed) return;
    const start = () => {
      if (this.listener) return;
      // The first gesture: now an AudioContext may start.
      this.listener = new AudioListener();
      void this.listener.context.resume();
      removeEventListener('pointerdown', start, true);
      removeEventListener('keydown', start, true);
    };
    addEventListener('pointerdown', start, true);
    addEventListener('keydown', start, true);
  }

  get muted(): boolean {
    return localStorage.getItem(STORAGE) === 'off';
  }

  set muted(value: boolean) {
    localStorage.setItem(STORAGE, value ? 'off' : 'on');
    if (value) this.stopLoading();
  }

  /** none (before any gesture, or not allowed here), suspended or running */
  state(): string {
    return this.listener?.context.state ?? 'none';
  }

  private active(): AudioListener | null {
    return this.allowed && !this.muted && this.listener?.context.state === 'running' ? this.listener : null;
  }

  private async buffer(themeId: string, name: string): Promise<AudioBuffer | null> {
    const key = `${themeId}\n${name}`;
    let found = this.buffers.get(key);
    if (!found) {
      found = (async () => {
        const assets = await themeAssets(themeId);
        const bytes = assets.sounds.get(name);
        if (!bytes || !this.listener) return null;
        return this.listener.context.decodeAudioData(bytes.slice(0)).catch(() => null);
      })();
      this.buffers.set(key, found);
    }
    return found;
  }

  /** The sound files of `event` for a die (a `src` is a file, or die id -> file). */
  private async sources(themeId: string, event: string, dieId: string | null, match: (s: SoundEntry) => boolean): Promise<string[]> {
    const theme: Theme | null = (await themeAssets(themeId)).theme;
    return ((theme?.sounds ?? []) as SoundEntry[])
      .filter((s) => s.on === event && match(s))
      .flatMap((s) => (typeof s.src === 'string' ? [s.src] : dieId && s.src && typeof s.src === 'object' ? [(s.src as Record<string, unknown>)[dieId]] : []))
      .filter((s): s is string => typeof s === 'string');
  }

  private async play(themeId: string, names: string[], event: string, volume: number, loop = false): Promise<Audio | null> {
    const listener = this.active();
    if (!listener || !names.length) return null;
    // One of them, as dddice does when a theme gives several: the first that decodes.
    const name = names[Math.floor(Math.random() * names.length)]!;
    const buffer = await this.buffer(themeId, name);
    if (!buffer || !this.active()) return null;
    const audio = new Audio(listener);
    audio.setBuffer(buffer);
    audio.setVolume(volume);
    audio.setLoop(loop);
    audio.play();
    this.played[event] = (this.played[event] ?? 0) + 1;
    return audio;
  }

  private lastCollide = 0;

  async collide(themeId: string, dieId: string, speed: number) {
    // A throw has dozens of contacts a second: a few knocks are enough to hear it.
    const now = performance.now();
    if (now - this.lastCollide < 70) return;
    this.lastCollide = now;
    const names = await this.sources(themeId, 'die.collide', dieId, () => true);
    await this.play(themeId, names, 'die.collide', Math.min(1, speed / 20));
  }

  async rested(themeId: string, dieId: string, face: string | null) {
    if (face === null) return;
    const names = await this.sources(themeId, 'die.value', dieId, (s) => String(s.value) === face || Number(s.value) === Number(face));
    await this.play(themeId, names, 'die.value', 1);
  }

  /** A roll of `count` dice was asked for: the theme's `roll.loading` sounds whose `value` matches, until it comes. */
  async rollLoading(themeId: string, count: number) {
    this.stopLoading();
    const token = this.loadingToken;
    const names = await this.sources(themeId, 'roll.loading', null, (s) => loadingMatches(s.value, count));
    const audio = await this.play(themeId, names, 'roll.loading', 0.8, true);
    if (!audio) return;
    // The roll may have come while the sound was decoded: then it stops at once.
    if (token !== this.loadingToken) audio.stop();
    else this.loading.push(audio);
  }

  private loadingToken = 0;

  stopLoading() {
    this.loadingToken++;
    for (const audio of this.loading) if (audio.isPlaying) audio.stop();
    this.loading = [];
  }
}

/** `roll.loading` values as themes write them: `2`, `"2"`, `"=2"`, `"==2"`, `">=3"`, `">3"`, `"<2"`, `"<=2"`. */
export function loadingMatches(value: unknown, count: number): boolean {
  const m = /^\s*(==?|>=?|<=?)?\s*(\d+)\s*$/.exec(String(value ?? ''));
  if (!m) return false;
  const n = Number(m[2]);
  switch (m[1]) {
    case '>':
      return count > n;
    case '>=':
      return count >= n;
    case '<':
      return count < n;
    case '<=':
      return count <= n;
    default:
      return count === n;
  }
}
