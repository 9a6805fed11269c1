import type { Middleware, RouteContext } from '../router.ts';

export interface FormContext extends RouteContext {
  /** The body of a POST as an HTML form sends it (application/x-www-form-urlencoded); empty for other methods. */
  form: URLSearchParams;
}

/** Reads a POST's form body (within the adapter's size limit) into the context. */
export function formBody<In extends RouteContext>(): Middleware<In, In & FormContext> {
  return (next) => async (ctx) => {
    const form = ctx.request.method === 'POST' ? new URLSearchParams((await ctx.request.body()).toString('utf8')) : new URLSearchParams();
    return next({ ...ctx, form });
  };
}
