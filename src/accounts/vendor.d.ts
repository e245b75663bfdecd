// Express's own dependencies, used as it uses them; neither ships its types.
declare module 'cookie' {
  export function parse(header: string): Record<string, string | undefined>;
}
declare module 'escape-html' {
  export default function escapeHtml(value: string): string;
}
