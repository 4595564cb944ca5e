/* django-celery-beat's periodic task form (templates/admin/djcelery/change_periodictask_form.html):
   under the crontab field, the chosen schedule in words — what the package does in an inline script,
   which the Content-Security-Policy refuses. The read-only "Crontab translation" row is hidden, as
   the package hides it: the words under the field say the same and follow the choice. */
"use strict";
(function () {
  const row = document.querySelector(".field-crontab_translation");
  if (row) row.classList.add("hidden");
  const data = document.getElementById("readable-crontabs");
  const select = document.getElementById("id_crontab");
  const help = document.querySelector(".field-crontab .help");
  if (!data || !select || !help) return;
  const readable = JSON.parse(data.textContent);
  const words = document.createElement("div");
  words.className = "crontab-in-words";
  help.append(words);
  function say() {
    const text = readable[select.value];
    words.textContent = text ? `Translation: ${text}` : "";
  }
  select.addEventListener("change", say);
  say();
})();
