import { errors } from '../../errors.ts';

const MAX_PROBLEMS = 20;

/** Collects a document's problems so one run shows the operator all of them (up to a bound). */
export class Problems {
  private readonly list: string[] = [];

  add(where: string, detail: string): void {
    if (this.list.length < MAX_PROBLEMS) this.list.push(`${where}: ${detail}`);
  }

  get count(): number {
    return this.list.length;
  }

  /** Throws `source_invalid` naming the document when anything was collected. */
  throwIfAny(source: string): void {
    if (this.list.length === 0) return;
    const count = this.list.length >= MAX_PROBLEMS ? `${MAX_PROBLEMS} or more` : String(this.list.length);
    throw errors.sourceInvalid(source, `${count} problem(s):\n  - ${this.list.join('\n  - ')}`);
  }
}
