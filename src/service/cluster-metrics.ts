import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const READY = 'tariff:metrics-ready';
const ASK = 'tariff:metrics-ask';
const ANSWER = 'tariff:metrics-answer';
/** A worker that does not answer a scrape in this long (busy, or dying) is left out of that scrape. */
const ANSWER_WITHIN_MS = 2_000;

type Snapshot = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;
interface Message {
  type?: string;
  id?: number;
  metrics?: Snapshot;
}

/** In a worker of `--workers`: answers the primary's scrapes with this worker's metrics, from now on. */
export function answerPrimary(registry: Registry): void {
  process.on('message', (message: Message) => {
    if (message?.type !== ASK) return;
    void registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: ANSWER, id: message.id, metrics }));
  });
  process.send?.({ type: READY });
}

/**
 * In the primary: every ready worker's metrics together, combined by prom-client's cluster
 * aggregation (counters summed, each gauge as its `aggregator` says). Only workers that said they
 * are ready are asked, and one that does not answer in time is left out: a worker starting or
 * being replaced never fails a scrape (prom-client's own cluster registry asks every worker and
 * fails the scrape after five seconds when one has not started listening yet).
 */
export class ClusterMetrics {
  private readonly ready = new Set<Worker>();
  private readonly waiting = new Map<number, (metrics: Snapshot) => void>();
  private nextId = 1;

  constructor() {
    cluster.on('message', (worker, message: Message) => {
      if (message?.type === READY) this.ready.add(worker);
      if (message?.type === ANSWER && message.metrics) this.waiting.get(message.id ?? 0)?.(message.metrics);
    });
    cluster.on('exit', (worker) => this.ready.delete(worker));
  }

  async gather(): Promise<{ contentType: string; body: string }> {
    const answers = await Promise.all([...this.ready].filter((worker) => worker.isConnected()).map((worker) => this.ask(worker)));
    const combined = AggregatorRegistry.aggregate(answers.filter((answer): answer is Snapshot => answer !== null));
    return { contentType: combined.contentType, body: await combined.metrics() };
  }

  private ask(worker: Worker): Promise<Snapshot | null> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle(null), ANSWER_WITHIN_MS);
      const settle = (metrics: Snapshot | null) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(metrics);
      };
      this.waiting.set(id, settle);
      worker.send({ type: ASK, id });
    });
  }
}
