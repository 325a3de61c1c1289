// The confirmation before something that cannot be undone (components.tsx ConfirmDialog).

/**
 * Opens `dialog` modally; resolves true when its `value` button closed it. Otherwise (Cancel,
 * Escape) focus goes back to `opener`, the button that opened it, and it resolves false.
 */
export function confirmed(dialog, value, opener) {
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        const yes = dialog.returnValue === value;
        if (!yes) opener?.focus();
        resolve(yes);
      },
      { once: true },
    );
    dialog.showModal();
  });
}
