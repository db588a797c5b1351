// One piece of run state held in memory and written through: the loop reads `value`, never the
// file (the agent can write .ralph/), and `set` saves only when the value changed, at the end of
// the step that changed it. The save is the file's own atomic writer.

export class HeldState<T> {
  constructor(
    private current: T,
    private readonly save: (next: T, previous: T | undefined) => void,
  ) {}

  get value(): T {
    return this.current;
  }

  /** Holds `next`; saves it when it is a new value (the saver may write only what differs). */
  set(next: T): void {
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    this.save(next, previous);
  }

  /** Saves the held value whole, e.g. at startup so every file exists from the first loop. */
  flush(): void {
    this.save(this.current, undefined);
  }
}
