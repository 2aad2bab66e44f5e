-- Where an inquiry came from, in words its office understands (issue 31 item 6): the app it was sent through (an
-- OAuth client or an API key; both null on the website and for inbound messages) and the name a portal gave in
-- its OpenImmo feedback. Inquiries sent before are filled in from their inquiry.received event where it is kept.
alter table inquiries
  add column origin_client_id text,
  add column origin_api_key_id uuid,
  add column portal_name text check (length(portal_name) <= 200);

update inquiries i set origin_client_id = o.origin_client_id, origin_api_key_id = o.origin_api_key_id
  from event_outbox o
  where o.name = 'inquiry.received' and o.data ->> 'anfrage_id' = i.id::text
    and (o.origin_client_id is not null or o.origin_api_key_id is not null);
