/// The site's one style sheet: system fonts, a grid of tiles, visible keyboard focus, nothing fetched.
enum ReportStyle {
    static let css = """
        :root { color-scheme: light; --ink: #1d1d1f; --muted: #5f5f66; --line: #d2d2d7; --bg: #fbfbfd; --accent: #0a58ca; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink); background: var(--bg); }
        a { color: var(--accent); }
        a:focus-visible, [tabindex]:focus-visible, summary:focus-visible { outline: 3px solid #ff9f0a; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5em 1em; z-index: 2; }
        .skip:focus { left: .5em; }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 1em; padding: .6em 1.2em; background: #fff; border-bottom: 1px solid var(--line); }
        .brand { margin: 0; font-weight: 700; }
        .brand a { color: var(--ink); text-decoration: none; }
        nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .2em .9em; }
        nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
        main { padding: 1em 1.2em 3em; max-width: 1400px; }
        h1 { font-size: 1.7em; margin: .3em 0 .5em; overflow-wrap: anywhere; }
        h2 { font-size: 1.25em; margin: 1.4em 0 .5em; }
        h3 { font-size: 1.05em; margin: 1em 0 .3em; }
        .count { color: var(--muted); font-weight: 400; font-size: .9em; }
        .totals { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5em 1.5em; }
        .months { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3em 1.4em; }
        .sheet { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 14px; }
        .tile { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 6px; display: flex; flex-direction: column; gap: 4px; }
        .tile.stack { box-shadow: 4px 4px 0 -1px #fff, 4px 4px 0 0 var(--line), 8px 8px 0 -1px #fff, 8px 8px 0 0 var(--line); }
        .pic { display: block; text-decoration: none; color: inherit; }
        .pic img, .placeholder { display: flex; width: 100%; height: 160px; object-fit: contain; background: #f0f0f3; border-radius: 4px; }
        .placeholder { flex-direction: column; justify-content: center; align-items: center; text-align: center; color: var(--muted); padding: 6px; overflow: hidden; font-size: .8em; border: 1px dashed var(--line); }
        .placeholder span { font-weight: 700; font-size: 1.1em; color: var(--ink); }
        .placeholder small { display: -webkit-box; -webkit-line-clamp: 5; -webkit-box-orient: vertical; overflow: hidden; }
        .asset .placeholder small { display: block; }
        .name { font-size: .85em; overflow-wrap: anywhere; }
        .more { font-size: .8em; }
        .badges { display: flex; flex-wrap: wrap; gap: 4px; }
        .badge { font-size: .72em; padding: 1px 7px; border-radius: 99px; background: #e8e8ed; color: var(--ink); border: 1px solid var(--line); }
        .badge.live { background: #fff4d6; border-color: #e0b000; }
        .badge.burst { background: #e4f0ff; border-color: #8ab4f8; }
        .livelist { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 18px; }
        .livelist > li { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px; }
        .livelist h2 { font-size: 1em; margin: 0 0 .4em; overflow-wrap: anywhere; }
        .pair { display: flex; gap: 8px; }
        .pair figure, .asset figure { margin: 0; flex: 1; }
        .pair img, .pair .placeholder { display: flex; width: 100%; height: 150px; object-fit: contain; background: #f0f0f3; border-radius: 4px; }
        figcaption { font-size: .8em; color: var(--muted); }
        .reason { font-size: .85em; color: var(--muted); padding-left: 1.1em; margin: .4em 0 0; }
        .asset { display: flex; flex-wrap: wrap; gap: 16px; max-width: 900px; }
        .asset img, .asset .placeholder { display: flex; height: auto; max-height: 520px; min-height: 160px; max-width: 100%; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
        .facts dt { color: var(--muted); }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        table { border-collapse: collapse; margin: .5em 0; width: 100%; }
        caption { text-align: left; color: var(--muted); font-size: .85em; padding-bottom: .3em; }
        th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: .3em .6em .3em 0; overflow-wrap: anywhere; }
        td img { width: 80px; height: 60px; object-fit: contain; }
        td .placeholder { width: 80px; height: 60px; font-size: .6em; }
        td .placeholder small { display: none; }
        .pages ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .4em; }
        .pages a { display: inline-block; padding: .1em .5em; border: 1px solid var(--line); border-radius: 4px; }
        .pages a[aria-current="page"] { background: var(--ink); color: #fff; }
        .factlines { list-style: none; padding-left: .5em; font-size: .85em; }
        .generated { color: var(--muted); font-size: .8em; margin-top: 3em; }

        """
}
