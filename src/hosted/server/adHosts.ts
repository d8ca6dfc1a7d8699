// The block list a server has when it has no other: the domains of the large ad exchanges, ad
// servers and analytics trackers, gathered for Tendril (MIT, like the rest of it). It is short, so
// it is never as thorough as @ghostery/trackerdb (thousands of domains, but CC-BY-NC-SA 4.0, so
// not installed by default) or a BLOCK_LIST_FILE of your own; it makes `blockAds: true` mean
// something on every server, which the reference function (examples/serverless) relies on.
// A listed domain blocks its subdomains too.

export const BUILT_IN_AD_HOSTS = [
  // Google's ad and measurement domains (not google.com itself).
  'doubleclick.net', 'googlesyndication.com', 'googleadservices.com', 'googletagservices.com', 'google-analytics.com',
  'googletagmanager.com', 'adservice.google.com', '2mdn.net', 'admob.com',
  // Exchanges, ad servers and ad networks.
  'adnxs.com', 'adsrvr.org', 'amazon-adsystem.com', 'criteo.com', 'criteo.net', 'rubiconproject.com', 'pubmatic.com',
  'openx.net', 'casalemedia.com', 'indexww.com', 'smartadserver.com', 'adform.net', 'bidswitch.net', 'media.net',
  'taboola.com', 'outbrain.com', 'sharethrough.com', 'teads.tv', '33across.com', 'yieldmo.com', 'adroll.com',
  'serving-sys.com', 'advertising.com', 'adsafeprotected.com', 'doubleverify.com', 'moatads.com', 'everesttech.net',
  'ads-twitter.com', 'ads.linkedin.com', 'bat.bing.com', 'adcolony.com', 'applovin.com', 'unityads.unity3d.com',
  // Audience measurement and analytics.
  'scorecardresearch.com', 'quantserve.com', 'demdex.net', 'omtrdc.net', 'hotjar.com', 'mouseflow.com', 'clarity.ms',
  'fullstory.com', 'mixpanel.com', 'segment.io', 'chartbeat.com', 'newrelic.com', 'nr-data.net', 'krxd.net', 'bluekai.com',
];
