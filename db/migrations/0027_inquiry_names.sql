-- One name per concept (docs/architecture.md, glossary): the code calls an enquiry an inquiry everywhere, as the
-- contract's wire names do (send_inquiry, inquiry_id, inquiry.received); this table was the last "enquiry" left.
alter table enquiry_mail_settings rename to inquiry_mail_settings;
