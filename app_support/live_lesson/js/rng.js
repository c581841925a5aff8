// numpy's legacy RandomState(seed).permutation(n), the shuffle MoMKDE splits its rows by:
// MT19937 seeded as init_genrand does, 32-bit draws, masked rejection for a draw in [0, max],
// Fisher-Yates from the last index down.

export class MT19937 {
  constructor(seed) {
    this.mt = new Uint32Array(624);
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const p = this.mt[i - 1] ^ (this.mt[i - 1] >>> 30);
      this.mt[i] = (Math.imul(1812433253, p) + i) >>> 0;
    }
    this.index = 624;
  }

  twist() {
    const mt = this.mt;
    for (let i = 0; i < 624; i++) {
      const y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7fffffff);
      mt[i] = mt[(i + 397) % 624] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  next32() {
    if (this.index >= 624) this.twist();
    let y = this.mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

// numpy's random_interval: a draw in [0, max] by masked rejection (max < 2^32 here).
export function interval(rng, max) {
  if (max === 0) return 0;
  let mask = max;
  mask |= mask >>> 1;
  mask |= mask >>> 2;
  mask |= mask >>> 4;
  mask |= mask >>> 8;
  mask |= mask >>> 16;
  let value;
  do {
    value = (rng.next32() & mask) >>> 0;
  } while (value > max);
  return value;
}

// RandomState(seed).permutation(n).
export function permutation(seed, n) {
  const rng = new MT19937(seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i >= 1; i--) {
    const j = interval(rng, i);
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  return order;
}
