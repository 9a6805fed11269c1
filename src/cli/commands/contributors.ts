import type { Command } from 'commander';
import { moderationActions } from '../../registry/moderation-actions.ts';
import type { Runner } from '../context.ts';
import { OPERATOR } from '../operator.ts';

/** `tariff contributors block|unblock`: an integration's point of sale, for the operator. */
export function registerContributors(program: Command, run: Runner): void {
  const contributors = program.command('contributors').description("Block or unblock an integration's point of sale (operator)");
  const commands = [
    { name: 'block', blocked: true, description: 'Block a contributor: its submissions are refused and its votes stop counting' },
    { name: 'unblock', blocked: false, description: 'Unblock a contributor: its votes count again' },
  ];
  for (const { name, blocked, description } of commands) {
    contributors
      .command(name)
      .description(description)
      .argument('<email>', 'the integration account')
      .argument('<contributorRef>', 'the point of sale, as the integration sends it')
      .addHelpText('after', `\nExample:\n  tariff contributors ${name} cassa@integrazione.example negozio-042`)
      .action(
        run(async (ctx, email: string, ref: string) => {
          await ctx.withRegistry((registry) => moderationActions(registry).blockContributor(email, ref, blocked, OPERATOR, ctx.io.now()));
          ctx.result({ email, contributorRef: ref, blocked }, `${email} ${ref}: ${blocked ? 'blocked' : 'unblocked'}`);
        }),
      );
  }
}
