import Foundation

/// Has headless Chromium (Debian `chromium`) parse a WebM file through Media Source
/// Extensions, the strictest of its WebM paths (every cluster, block and track must be
/// right), and report what it buffered: "ok ranges=1 start=0.000 end=2.000" or the error.
func chromiumParseWebM(_ path: String) async throws -> String {
    let directory = (path as NSString).deletingLastPathComponent
    let page = directory + "/mse.html"
    try Data(
        #"""
        <html><body><video id="v" muted></video>
        <script>
        const v = document.getElementById('v');
        const ms = new MediaSource();
        v.src = URL.createObjectURL(ms);
        v.addEventListener('error', () => { document.title = 'media error: ' + (v.error && v.error.message); });
        ms.addEventListener('sourceopen', () => {
          const sb = ms.addSourceBuffer('video/webm; codecs="vp8,opus"');
          sb.addEventListener('updateend', () => {
            const b = sb.buffered;
            document.title = 'ok ranges=' + b.length + (b.length ? ' start=' + b.start(0).toFixed(3) + ' end=' + b.end(b.length - 1).toFixed(3) : '');
          });
          const x = new XMLHttpRequest();
          x.open('GET', location.hash.slice(1)); x.responseType = 'arraybuffer';
          x.onload = () => sb.appendBuffer(x.response);
          x.onerror = () => { document.title = 'read error'; };
          x.send();
        });
        </script></body></html>
        """#.utf8
    ).write(to: URL(fileURLWithPath: page))
    let profile = directory + "/chromium-profile"
    let dom = try await run(
        "/usr/bin/chromium",
        [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)",
            "--allow-file-access-from-files", "--virtual-time-budget=10000", "--dump-dom",
            "file://\(page)#\((path as NSString).lastPathComponent)",
        ]
    )
    guard let start = dom.range(of: "<title>"),
        let end = dom.range(of: "</title>", range: start.upperBound..<dom.endIndex)
    else { return "no title" }
    return String(dom[start.upperBound..<end.lowerBound])
}
