import { sameSecret } from '../../util/digests.ts';
import type { HttpResponse } from '../http.ts';
import type { Middleware } from '../router.ts';
import type { FormContext } from './form-body.ts';

export interface CsrfOptions<C> {
  /** The token the form must carry: the session's, or the double-submit cookie's before sign-in. */
  expected: (ctx: C) => string | undefined;
  /** The answer to a form without it (a page elsewhere posting here). */
  refuse: () => HttpResponse;
}

/**
 * Refuses a POST whose form does not carry the expected token in `_csrf` (compared in constant
 * time). Other methods pass: they change nothing.
 */
export function csrf<C extends FormContext>(options: CsrfOptions<C>): Middleware<C, C> {
  return (next) => async (ctx) => {
    if (ctx.request.method === 'POST' && !sameSecret(ctx.form.get('_csrf') ?? undefined, options.expected(ctx))) return options.refuse();
    return next(ctx);
  };
}
