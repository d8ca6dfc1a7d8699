import CDP from '/work/wt/extras-b/node_modules/chrome-remote-interface/index.js';
const c = await CDP({port: 9339});
console.log(JSON.stringify(c.protocol.domains.find(d=>d.domain==='WebMCP'), null, 1));
await c.close();
