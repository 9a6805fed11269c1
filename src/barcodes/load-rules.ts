import { errors } from '../errors.ts';
import { DEFAULT_RULES, type StatusRules } from './status-rules.ts';

/**
 * The moderation rules from the environment (docs/moderation.md): TARIFF_QUORUM and
 * TARIFF_WEIGHT_USER / _SUPPLIER / _INTEGRATION, whole numbers, defaults 2 and 1, 1, 1.
 */
export function loadRules(env: NodeJS.ProcessEnv): StatusRules {
  const read = (name: string, fallback: number, min: number) => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min) throw errors.usage(`${name}=${value} is not a whole number of at least ${min}`);
    return Number(value);
  };
  return {
    quorum: read('TARIFF_QUORUM', DEFAULT_RULES.quorum, 1),
    weights: {
      User: read('TARIFF_WEIGHT_USER', DEFAULT_RULES.weights.User, 0),
      Supplier: read('TARIFF_WEIGHT_SUPPLIER', DEFAULT_RULES.weights.Supplier, 0),
      Integration: read('TARIFF_WEIGHT_INTEGRATION', DEFAULT_RULES.weights.Integration, 0),
    },
  };
}
