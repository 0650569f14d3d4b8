/**
 * One memory budget for everything the HTTP transport keeps for its
 * clients, across all sessions: events kept for replay, streams kept for a
 * resume, events queued for a client that has not taken them yet. Each
 * holder opens a {@linkcode KeptAccount}, charges what it keeps and
 * releases what it lets go; when the total goes past the budget, accounts
 * are evicted until it fits again: those no client ever came back for
 * first, the least recently used first among them (a holder whose account
 * is evicted drops everything it kept: a replay buffer is emptied, a queue
 * of events is dropped and its client's response fails).
 *
 * The invariant: once a charge returns, {@linkcode KeptBudget.used} is at
 * most {@linkcode KeptBudget.maxBytes} (the charging account itself is
 * evicted when nothing else is left to take).
 *
 * @module
 */

/** Default of {@linkcode KeptBudget}'s size: 64 MiB. */
export const DEFAULT_MAX_KEPT_BYTES = 64 * 1024 * 1024;

/** Bytes one holder keeps; see {@linkcode KeptBudget.open}. */
export class KeptAccount {
  readonly #budget: KeptBudget;
  readonly #evict: () => void;
  #bytes = 0;
  #resumed = false;

  /** Use {@linkcode KeptBudget.open}. */
  constructor(budget: KeptBudget, evict: () => void) {
    this.#budget = budget;
    this.#evict = evict;
  }

  /** Bytes charged now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether a client came back for what this account keeps. */
  get resumed(): boolean {
    return this.#resumed;
  }

  /**
   * Charge `bytes` more (the account becomes the most recently used);
   * accounts are evicted if the budget is exceeded, this one last.
   */
  charge(bytes: number): void {
    this.set(this.#bytes + bytes);
  }

  /** Release `bytes` (at most what is charged). */
  release(bytes: number): void {
    this.set(Math.max(0, this.#bytes - bytes));
  }

  /** Charge exactly `bytes` in all, the account becoming the most recent. */
  set(bytes: number): void {
    this.#budget.update(this, this.#bytes, bytes);
    this.#bytes = bytes;
    this.#budget.enforce(this);
  }

  /** Mark the account as one a client came back for (evicted later). */
  markResumed(): void {
    if (this.#resumed) return;
    this.#resumed = true;
    this.#budget.update(this, this.#bytes, this.#bytes);
  }

  /** Release everything, without calling the eviction callback. */
  close(): void {
    this.#budget.update(this, this.#bytes, 0);
    this.#bytes = 0;
  }

  /** @internal The budget takes everything back, then tells the holder. */
  evicted(): void {
    this.#budget.update(this, this.#bytes, 0);
    this.#bytes = 0;
    this.#evict();
  }
}

/**
 * The accountant of bytes kept for clients; see the module documentation.
 *
 * @example Two holders over a budget of 100 bytes
 * ```ts
 * import { strict as assert } from "node:assert";
 * import { KeptBudget } from "./kept_budget.ts";
 *
 * const budget = new KeptBudget(100);
 * let dropped = "";
 * const old = budget.open(() => dropped += "old");
 * const young = budget.open(() => dropped += "young");
 * old.charge(60);
 * young.charge(60);
 * assert.equal(dropped, "old");
 * assert.equal(budget.used, 60);
 * ```
 */
export class KeptBudget {
  /** The budget in bytes. */
  readonly maxBytes: number;
  #used = 0;
  #evictions = 0;
  /** Charged accounts no client came back for, least recently used first. */
  readonly #fresh = new Set<KeptAccount>();
  /** Charged accounts a client came back for, least recently used first. */
  readonly #resumed = new Set<KeptAccount>();
  #enforcing = false;

  /** A budget of `maxBytes` bytes (a whole number, at least 1). */
  constructor(maxBytes: number = DEFAULT_MAX_KEPT_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new RangeError(
        `maxKeptBytes must be a whole number of bytes from 1, not ${maxBytes}`,
      );
    }
    this.maxBytes = maxBytes;
  }

  /** Bytes charged now, by all accounts. */
  get used(): number {
    return this.#used;
  }

  /** Accounts evicted so far. */
  get evictions(): number {
    return this.#evictions;
  }

  /**
   * A new account, empty; `evict` is called when the budget takes back
   * everything it charged (the holder must then drop what it keeps).
   */
  open(evict: () => void): KeptAccount {
    return new KeptAccount(this, evict);
  }

  /** @internal An account's charge goes from `before` to `after`. */
  update(account: KeptAccount, before: number, after: number): void {
    this.#used += after - before;
    this.#fresh.delete(account);
    this.#resumed.delete(account);
    if (after > 0) (account.resumed ? this.#resumed : this.#fresh).add(account);
  }

  /** @internal Evict until the budget holds, `last` only if it must. */
  enforce(last: KeptAccount): void {
    if (this.#used <= this.maxBytes || this.#enforcing) return;
    this.#enforcing = true;
    try {
      for (const set of [this.#fresh, this.#resumed]) {
        for (const account of set) {
          if (this.#used <= this.maxBytes) return;
          if (account === last) continue;
          this.#evictions++;
          account.evicted();
        }
      }
      if (this.#used > this.maxBytes && last.bytes > 0) {
        this.#evictions++;
        last.evicted();
      }
    } finally {
      this.#enforcing = false;
    }
  }
}
