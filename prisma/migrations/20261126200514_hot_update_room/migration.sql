-- Room on each page for the rows that a charger's messages update over and over (issue 29: a
-- transaction's totals at every MeterValues, a station's event_sequence and last_seen): an update
-- whose new version fits on its row's page is a HOT update, which adds no index entries and whose
-- old version the page reclaims itself. Full pages (the default fillfactor, 100) sent about half
-- of the transactions' updates to new pages, each with a new entry in every index.
-- Existing pages keep their fill; new and rewritten ones leave 30% free.
ALTER TABLE "transactions" SET (fillfactor = 70);
ALTER TABLE "stations" SET (fillfactor = 70);
