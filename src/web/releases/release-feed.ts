import { XMLBuilder } from 'fast-xml-parser';
import { describeNotesItalian, type ReleaseNotes } from './release-notes.ts';
import { releaseContentHtml } from './release-pages.ts';
import { printable } from '../../util/clean-text.ts';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  format: true,
  suppressEmptyNode: true,
});

/**
 * The Atom feed (RFC 4287) of recent releases: an integrator's feed reader or cron job learns of a
 * new release here, outside /v1, without spending a read. Entry ids are the releases' own pages,
 * which never change for a version. With no release yet, the feed is dated by `emptySince`.
 */
export function releaseFeed(releases: ReleaseNotes[], siteUrl: string, emptySince: string): string {
  const site = siteUrl.replace(/\/+$/, '');
  const feed = {
    '?xml': { '@version': '1.0', '@encoding': 'utf-8' },
    feed: {
      '@xmlns': 'http://www.w3.org/2005/Atom',
      '@xml:lang': 'it',
      id: `${site}/aggiornamenti`,
      title: 'Tariffa tabacchi: aggiornamenti del servizio dati',
      subtitle: 'Ogni rilascio dei prezzi di vendita al pubblico dei tabacchi lavorati e cosa è cambiato.',
      updated: releases[0]?.generatedAt ?? emptySince,
      author: { name: 'Tariffa tabacchi · servizio dati' },
      link: [
        { '@rel': 'self', '@type': 'application/atom+xml', '@href': `${site}/aggiornamenti.atom` },
        { '@rel': 'alternate', '@type': 'text/html', '@href': `${site}/aggiornamenti` },
      ],
      entry: releases.map((notes) => ({
        id: `${site}/aggiornamenti/${notes.version}`,
        title: `Tariffa ${notes.version}, in vigore dal ${notes.tariffDate}`,
        updated: notes.generatedAt,
        link: { '@rel': 'alternate', '@type': 'text/html', '@href': `${site}/aggiornamenti/${notes.version}` },
        // XML 1.0 cannot carry a control character at all: one would make the whole feed unreadable.
        summary: printable(describeNotesItalian(notes)),
        content: { '@type': 'html', '#text': releaseContentHtml(notes) },
      })),
    },
  };
  return builder.build(feed) as string;
}
