// Progressive enhancement only: every page works without this script.
// The "Copia" button copies the new API key shown once after its creation.
for (const button of document.querySelectorAll('[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.getAttribute('data-copy'));
    try {
      await navigator.clipboard.writeText(target.textContent.trim());
      button.textContent = 'Copiata';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Selezionata: premi Ctrl+C';
    }
  });
}
