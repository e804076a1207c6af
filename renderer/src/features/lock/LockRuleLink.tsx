import { Anchor } from '@mantine/core';
import { useNavigate } from '../../shell/useSection';

/** The lockfile rule of a verdict, linked to the review of held definitions. */
export function LockRuleLink() {
  const navigate = useNavigate();
  return (
    <>
      held in{' '}
      <Anchor component="button" type="button" size="inherit" ff="monospace" onClick={() => navigate('tools', { view: 'review' })}>
        tooldeck.lock
      </Anchor>
    </>
  );
}
