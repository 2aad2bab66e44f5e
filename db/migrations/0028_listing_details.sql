-- What a portal shows of a listing beyond the twelve public fields (issue 31, docs/contract.md §4.14): the public
-- description, the energy certificate's data (GEG §87), the costs of a rental, the floor and when the property is
-- available. One row per listing, only when one of them is given; a table of its own so that the catalogue's
-- search table and its covering indexes stay as narrow as before. The rules (ranges, lengths, which values go
-- together) are in catalogue/listing_details.ts; the checks here only keep impossible rows out.

create table listing_details (
  listing_id uuid primary key references listings (id) on delete cascade,
  -- Plain text with paragraphs, shown escaped on the listing page.
  public_description text check (length(public_description) between 1 and 20000),
  -- The energy certificate (Energieausweis): its kind, the final energy demand or consumption in kWh/(m²·a), the
  -- main energy carrier, the year of construction, the efficiency class and the end of its validity.
  energy_certificate_type text check (energy_certificate_type in ('bedarf', 'verbrauch')),
  energy_value numeric(6, 1) check (energy_value >= 0),
  energy_carrier text check (length(energy_carrier) between 1 and 100),
  construction_year int check (construction_year between 1000 and 2100),
  energy_class text check (energy_class in ('A+', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H')),
  energy_certificate_valid_until date,
  -- Costs in euro: Nebenkosten and Warmmiete per month, the deposit (Kaution) once.
  service_charges numeric(12, 2) check (service_charges >= 0),
  warm_rent numeric(12, 2) check (warm_rent >= 0),
  deposit numeric(12, 2) check (deposit >= 0),
  -- The floor (Etage): 0 the ground floor, negative below it.
  floor int check (floor between -5 and 200),
  -- When the property is available, as the provider says it ("sofort", "1. März 2027", "nach Vereinbarung").
  available_from text check (length(available_from) between 1 and 100)
);
