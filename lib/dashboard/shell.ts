/**
 * The dashboard's HTML: a shell that loads the bundled script and stylesheet (the script draws
 * every view). Asset URLs are relative, so the page works wherever the service is mounted.
 * Rendered at generate time (scripts/generate-dashboard.ts), when the assets' hashed names are known.
 */

export interface ShellAssets {
  script: string;
  style: string;
  icon: string;
}

/** The page, given the hashed file names of its assets under dashboard/assets/. */
export function renderShell(assets: ShellAssets): string {
  const asset = (name: string) => `dashboard/assets/${name}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>edge-stream-queue dashboard</title>
<link rel="icon" type="image/svg+xml" href="${asset(assets.icon)}">
<link rel="stylesheet" href="${asset(assets.style)}">
<script type="module" src="${asset(assets.script)}"></script>
</head>
<body>
<div id="app"><main id="main"><h1>edge-stream-queue dashboard</h1><noscript><p>The dashboard needs JavaScript. The same data is in the JSON API: see <a href="docs">the API reference</a>.</p></noscript></main></div>
</body>
</html>
`;
}
