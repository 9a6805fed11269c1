import { DEFAULT_SETTINGS, type Settings } from '../config/settings.ts';
import type { StatusRules } from './status-rules.ts';

/**
 * The moderation rules from the settings (docs/moderation.md): TARIFF_QUORUM, TARIFF_WEIGHT_USER /
 * _SUPPLIER / _INTEGRATION and TARIFF_VETTING_DAYS.
 */
export function loadRules(settings: Settings): StatusRules {
  return {
    quorum: settings.quorum,
    weights: { User: settings.weightUser, Supplier: settings.weightSupplier, Integration: settings.weightIntegration },
    vettingDays: settings.vettingDays,
  };
}

/** The rules at the settings' defaults (quorum 2, every weight 1, 7 vetting days). */
export const DEFAULT_RULES: StatusRules = loadRules(DEFAULT_SETTINGS);
