/** One run of text on a PDF page, in PDF user space (points, y growing upwards). */
export interface TextRun {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The text runs of one page, with its 1-based number. */
export interface PdfPage {
  number: number;
  runs: TextRun[];
}
